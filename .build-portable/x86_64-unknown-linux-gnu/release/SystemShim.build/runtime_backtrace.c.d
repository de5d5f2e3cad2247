dependencies: /work/main/Sources/SystemShim/runtime_backtrace.c \
  /opt/swift/usr/lib/clang/21/include/stdbool.h
