#!/usr/bin/env python3
"""Create a skill folder from a template (fixture script)."""
