#include "graph/fw-node.h"
#include <adwaita.h> /* expect: core-gtk */
