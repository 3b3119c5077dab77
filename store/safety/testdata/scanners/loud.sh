#!/bin/sh
# A scanner that writes far more than any cap.
yes '{"findings":[]}' | head -c 3000000
