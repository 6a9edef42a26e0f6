#include <adwaita.h>
#include "fw-view.h"
#include "graph/fw-node-private.h" /* expect: private */
