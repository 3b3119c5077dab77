#!/usr/bin/env python3
"""Print the text of every page of a PDF (fixture script)."""
import sys

if __name__ == "__main__":
    print("extracting", sys.argv[1:])
