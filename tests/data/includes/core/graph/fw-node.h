#include "fw-error.h"
#include <glib.h>
#include <gtk/gtk.h> /* expect: core-gtk */
#include "plan/fw-plan.h" /* expect: layer */
