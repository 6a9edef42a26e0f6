/* test-exec-nn.c */
#include "config.h"

#include "fw-test-models.h"

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  return g_test_run ();
}
