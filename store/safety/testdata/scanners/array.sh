#!/bin/sh
# A scanner that writes a plain array of findings, one low.
echo '[{"rule":"note","level":"low","file":"SKILL.md","line":1,"message":"looked at it"}]'
