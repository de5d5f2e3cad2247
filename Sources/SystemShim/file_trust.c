/* The one trust rule; see file_trust.h. */
#include "file_trust.h"

#include <unistd.h>

int vg_system_trust(const struct stat *s, int root_may_own, int group_may_write)
{
    int problems = 0;
    if (s->st_uid != geteuid() && !(root_may_own && s->st_uid == 0)) problems |= VG_TRUST_OWNER;
    if (s->st_mode & S_IWOTH) problems |= VG_TRUST_OTHERS_WRITE;
    if ((s->st_mode & S_IWGRP) && !group_may_write) problems |= VG_TRUST_GROUP_WRITE;
    return problems;
}
