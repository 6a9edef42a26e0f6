#include <gtk/gtk.h>
#include "session/fw-project.h"
#include "session/fw-project-private.h" /* expect: private */
#include "fw-window.h" /* expect: layer */
