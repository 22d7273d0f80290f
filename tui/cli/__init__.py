"""The ``threadback`` command line: ``main.py`` dispatches to one module per command group."""
