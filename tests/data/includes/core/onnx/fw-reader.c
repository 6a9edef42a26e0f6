#include "fw-reader.h"
#include "graph/fw-node-private.h"
#include "shape/fw-infer.h" /* expect: onnx-format */
#include "plan/fw-plan.h" /* expect: onnx-format, expect: layer */
#include <gtksourceview/gtksource.h> /* expect: core-gtk */
