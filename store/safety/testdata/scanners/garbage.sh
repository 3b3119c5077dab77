#!/bin/sh
# A scanner that prints something other than JSON findings.
echo 'scan complete: all good!'
