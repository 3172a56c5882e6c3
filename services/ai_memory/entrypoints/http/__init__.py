"""The HTTP API: FastAPI routes over the services facade."""
