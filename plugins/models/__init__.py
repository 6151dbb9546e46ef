"""Built-in model plugins, one file per family."""
