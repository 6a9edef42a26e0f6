/* fw-hw-private.h: what fw-profile.c and fw-host-probe.c share and nothing else needs. */
#pragma once

#include "fw-profile.h"
#include "yaml/fw-yaml.h"

G_BEGIN_DECLS

#define FW_HW_RESOURCE_PREFIX "/org/fusionworkbench/hw/"

/* Validates a parsed profile document. source becomes profile->source; machine_out (may be NULL) receives
 * the optional `machine` key, which the host cache uses to notice it was written on another computer. */
FwProfile *fw_profile_from_document (const FwYamlDocument *doc,
                                     const char           *source,
                                     char                **machine_out,
                                     GError              **error);
/* A shipped profile, read from the library's resources without the host probe. */
FwProfile *fw_profile_load_resource (const char           *name,
                                     GError              **error);
/* The profile as YAML that loads back to the same numbers; machine and header are written when not NULL. */
char      *fw_profile_serialize     (const FwProfile      *profile,
                                     const char           *machine,
                                     const char           *header_comment);

/* The `host` profile: host.yaml, then the topology and caches from sysfs, then the probe or its cache,
 * then the calibration's cache when there is one (fw-host-calibrate.c). */
FwProfile *fw_host_profile_load     (GError              **error);
/* What identifies this machine in the caches: CPU model, CPU count and the probe's version. */
char      *fw_host_machine_key      (void);
/* A profile cache (the probe's, the calibration's) written atomically under its folder, made if missing:
 * the profile as YAML keyed to machine, headed by what, "measured DATE on this machine." and advice. */
gboolean   fw_host_cache_write      (const char           *path,
                                     const FwProfile      *profile,
                                     const char           *machine,
                                     const char           *what,
                                     const char           *advice,
                                     GError              **error);
/* FW_HOST_PROFILE_NO_PROBE=1: fixed numbers, no cache read or written. */
gboolean   fw_host_profile_no_probe (void);

G_END_DECLS
