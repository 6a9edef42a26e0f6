/* fw-inspector.c: placeholder until the widget lands. */
#include "config.h"

#include "fw-inspector.h"
