/* fw-graph-view.c: placeholder until the widget lands. */
#include "config.h"

#include "fw-graph-view.h"
