dependencies: /work/main/Sources/SystemShim/library_path.c \
  /work/main/Sources/SystemShim/include/library_path.h \
  /opt/swift/usr/lib/clang/21/include/stddef.h \
  /opt/swift/usr/lib/clang/21/include/__stddef_header_macro.h \
  /opt/swift/usr/lib/clang/21/include/__stddef_ptrdiff_t.h \
  /opt/swift/usr/lib/clang/21/include/__stddef_size_t.h \
  /opt/swift/usr/lib/clang/21/include/__stddef_wchar_t.h \
  /opt/swift/usr/lib/clang/21/include/__stddef_null.h \
  /opt/swift/usr/lib/clang/21/include/__stddef_max_align_t.h \
  /opt/swift/usr/lib/clang/21/include/__stddef_offsetof.h \
  /work/main/build/debian11/usr/include/dlfcn.h \
  /work/main/build/debian11/usr/include/features.h \
  /work/main/build/debian11/usr/include/stdc-predef.h \
  /work/main/build/debian11/usr/include/x86_64-linux-gnu/sys/cdefs.h \
  /work/main/build/debian11/usr/include/x86_64-linux-gnu/bits/wordsize.h \
  /work/main/build/debian11/usr/include/x86_64-linux-gnu/bits/long-double.h \
  /work/main/build/debian11/usr/include/x86_64-linux-gnu/gnu/stubs.h \
  /work/main/build/debian11/usr/include/x86_64-linux-gnu/gnu/stubs-64.h \
  /work/main/build/debian11/usr/include/x86_64-linux-gnu/bits/dlfcn.h \
  /work/main/build/debian11/usr/include/string.h \
  /work/main/build/debian11/usr/include/x86_64-linux-gnu/bits/libc-header-start.h \
  /work/main/build/debian11/usr/include/x86_64-linux-gnu/bits/types/locale_t.h \
  /work/main/build/debian11/usr/include/x86_64-linux-gnu/bits/types/__locale_t.h \
  /work/main/build/debian11/usr/include/strings.h
