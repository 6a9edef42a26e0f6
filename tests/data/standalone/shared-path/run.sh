#!/bin/sh
# Exports the models with the team's tool.
exec ../shared/tools/make-models.sh "$@"
