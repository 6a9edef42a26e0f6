#include "graph/fw-node-private.h"
#include <gdk/gdk.h> /* expect: core-gtk */
