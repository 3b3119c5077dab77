#!/usr/bin/env python3
"""List curated skills (fixture script)."""
