"""Built-in benchmark plugins, one file per benchmark (reference rows as JSON beside them)."""
