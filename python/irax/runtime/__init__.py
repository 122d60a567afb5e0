"""The only package that touches the IREE compiler and runtime."""
