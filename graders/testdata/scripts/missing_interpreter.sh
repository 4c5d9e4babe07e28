#!/usr/bin/env skillgate-no-such-interpreter
print("never")
