#!/bin/sh
# Tells the session which workflow skills exist.
echo "Workflow skills: superpowers:brainstorming, superpowers:writing-plans, superpowers:executing-plans"
