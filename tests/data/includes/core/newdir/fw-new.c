#include "graph/fw-node.h" /* expect: layer */
