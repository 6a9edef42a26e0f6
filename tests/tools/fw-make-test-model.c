/* fw-make-test-model: writes one of the in-memory test models as an ONNX file, for the bundled example,
 * the benchmarks and the ONNX Runtime checks. Usage: fw-make-test-model KIND OUT.onnx [N]
 * KIND: transformer (symbolic batch), transformer-static, conv, chain (N ops), long-chain (N nodes). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fw-test-models.h"

int
main (int argc, char **argv)
{
  g_autoptr(FwModel) model = NULL;
  g_autoptr(GError) error = NULL;
  const char *kind;
  guint n;

  if (argc < 3)
    {
      g_printerr ("usage: fw-make-test-model transformer|transformer-static|conv|chain|long-chain OUT.onnx [N]\n");
      return 2;
    }
  kind = argv[1];
  n = argc > 3 ? (guint) strtoul (argv[3], NULL, 10) : 0;
  if (strcmp (kind, "transformer") == 0)
    model = fw_test_transformer_block (128, 256, 4, TRUE);
  else if (strcmp (kind, "transformer-static") == 0)
    model = fw_test_transformer_block (128, 256, 4, FALSE);
  else if (strcmp (kind, "small-transformer") == 0)
    model = fw_test_transformer_block (16, 64, 4, TRUE);
  else if (strcmp (kind, "conv") == 0)
    model = fw_test_conv_block ();
  else if (strcmp (kind, "chain") == 0)
    model = fw_test_elementwise_chain (n ? n : 8, 1024, TRUE);
  else if (strcmp (kind, "long-chain") == 0)
    model = fw_test_long_chain (n ? n : 100000);
  else
    {
      g_printerr ("unknown kind %s\n", kind);
      return 2;
    }
  if (!fw_onnx_write (model, argv[2], FW_ONNX_WRITE_DEFAULT, &error))
    {
      g_printerr ("%s\n", error->message);
      return 2;
    }
  return 0;
}
