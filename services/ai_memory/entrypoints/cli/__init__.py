"""The ``ai-memory`` command line (the console script is ``launcher.main``)."""
