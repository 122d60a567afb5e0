"""Command-line tools: irax-opt and irax-compile."""
