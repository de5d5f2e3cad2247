dependencies: /work/main/Sources/SystemShim/system_facts.c \
  /work/main/Sources/SystemShim/include/system_facts.h \
  /work/main/build/debian11/usr/include/x86_64-linux-gnu/gnu/libc-version.h \
  /work/main/build/debian11/usr/include/features.h \
  /work/main/build/debian11/usr/include/stdc-predef.h \
  /work/main/build/debian11/usr/include/x86_64-linux-gnu/sys/cdefs.h \
  /work/main/build/debian11/usr/include/x86_64-linux-gnu/bits/wordsize.h \
  /work/main/build/debian11/usr/include/x86_64-linux-gnu/bits/long-double.h \
  /work/main/build/debian11/usr/include/x86_64-linux-gnu/gnu/stubs.h \
  /work/main/build/debian11/usr/include/x86_64-linux-gnu/gnu/stubs-64.h
