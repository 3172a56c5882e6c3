"""The HTTP API's wire models, shared by the server's routes and the SDK.

Pure pydantic over the core record model: importing them pulls in no server package, so
the client-only install can use them."""
