/* fw-candidate-list.c: placeholder until the widget lands. */
#include "config.h"

#include "fw-candidate-list.h"
