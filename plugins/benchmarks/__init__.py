"""Built-in benchmark plugins, one file per benchmark, each with its card in ``cards/<type>.md``."""
