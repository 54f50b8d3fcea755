"""The forge tool: command line, state store and resources."""
