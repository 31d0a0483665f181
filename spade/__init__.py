"""SPADE: the command line and the wiring of sandbox, engine, policies and trainer."""

__version__ = "0.1.0"
