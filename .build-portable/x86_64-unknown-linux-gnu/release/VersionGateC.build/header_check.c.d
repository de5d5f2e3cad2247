dependencies: /work/main/Sources/VersionGateC/header_check.c \
  /work/main/Sources/VersionGateC/include/versiongate.h
