#include "graph/fw-node.h"
#include "graph/fw-node-private.h"
#include "shape/fw-infer.h"
