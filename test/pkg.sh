#!/bin/sh
# pkg.sh ROUTE WORKDIR - check one way of getting the library into a project:
# install it (into a fresh prefix under WORKDIR, never elsewhere) or add it
# as a subproject, then build AND run the consumer programs of test/pkg/,
# which check exact pop results and that TIMER_VERSION is the package's
# (consumer.c twice: through the headers and through timer_containers.h;
# consumer.cpp through timer_containers.hpp, the C++ interface), and an
# application with a list.h, a struct timer_heap and a TIMER_TYPES_ONLY of
# its own (app.c, lib.c, own/list.h), its include directory before the
# library's and after it (v2.2).
#
#   make-install      make install PREFIX=...; cc -I<prefix>/include; man 3
#                     timer_wheel there; and with DESTDIR, the files land
#                     under it, the .pc names PREFIX
#   pkg-config        the installed .pc: module, version, flags; build with them
#   find_package      cmake --install (man 3 timer_wheel there); find_package(timer_containers X.Y
#                     REQUIRED) and the versions it must refuse; and again
#                     after the prefix is moved (the package is relocatable)
#   add_subdirectory  add_subdirectory(<checkout>): <timer_containers/...>;
#                     installs nothing of ours
#   fetchcontent      FetchContent from a file:// tarball of the checkout
#   meson             a subproject via dependency(... fallback:);
#                     meson install = make install, file for file; man
#                     3 timer_wheel there
#   layout            cmake --install = make install (names, modes, bytes),
#                     also with --prefix at install time and another
#                     include directory; make uninstall leaves nothing
#   version           list.h, the .pc, the CMake version files and
#                     meson.build name one version
#   all               every route above, then "N passed, M failed"
#
# A route prints the commands it runs (their output goes to a log, shown when
# one fails), ends with "PASS route (N s)" and exits 0, or prints what broke
# and exits 1; a missing tool (cmake, meson, ninja, pkg-config) is a failure
# naming its Debian package. The subproject routes use the checkout's files
# that git tracks or would track (untracked, not ignored), so a build
# directory inside the checkout is never part of the test. Environment: CC
# (default cc), CXX (default c++). Consumers build with -std=c99 -Wall -Wextra
# -Wpedantic -Werror, and the C++ one with -std=c++11 and those warnings.
# The route's directory under WORKDIR is removed when it passes, kept when not.

set -u
ROUTES="make-install pkg-config find_package add_subdirectory fetchcontent meson layout version"
if [ $# -ne 2 ]; then
    echo "usage: $0 ROUTE WORKDIR   (ROUTE: $ROUTES all)" >&2
    exit 2
fi
ROUTE=$1
case " $ROUTES all " in
*" $ROUTE "*) ;;
*) echo "pkg.sh: unknown route '$ROUTE' (one of: $ROUTES all)" >&2; exit 2 ;;
esac
ROOT=$(cd "$(dirname "$0")/.." && pwd -P) || exit 1
mkdir -p "$2" || exit 1
WORKDIR=$(cd "$2" && pwd -P) || exit 1
: "${CC:=cc}" "${CXX:=c++}"
export CC CXX
WARN="-std=c99 -Wall -Wextra -Wpedantic -Werror"
CXXWARN="-std=c++11 -Wall -Wextra -Wpedantic -Werror"
CONSUMER=$ROOT/test/pkg

now() { date +%s.%N; }
elapsed() { echo "$(now) $1" | awk '{ printf "%.1f", $1 - $2 }'; }

if [ "$ROUTE" = all ]; then
    passed=0
    failed=0
    for r in $ROUTES; do
        if sh "$0" "$r" "$WORKDIR"; then
            passed=$((passed + 1))
        else
            failed=$((failed + 1))
        fi
    done
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ]
    exit
fi

START=$(now)
W=$(mktemp -d "$WORKDIR/$ROUTE.XXXXXX") || exit 1
LOG=$W/log.txt
: >"$LOG"
echo "== $ROUTE (in $W)"

fail() {
    echo "FAIL $ROUTE: $*"
    echo "     (files kept in $W)"
    exit 1
}

# run COMMAND...: print it, log its output; on failure show the log's tail.
run() {
    echo "+ $*"
    echo "+ $*" >>"$LOG"
    if ! "$@" >>"$LOG" 2>&1; then
        tail -n 30 "$LOG" | sed 's/^/    /'
        fail "this command failed: $*"
    fi
}

# exec_ok PROGRAM: run a built consumer; its output is shown.
exec_ok() {
    echo "+ $1"
    "$1" >"$W/out.txt" 2>&1
    ex_status=$?
    sed 's/^/    /' "$W/out.txt"
    cat "$W/out.txt" >>"$LOG"
    [ "$ex_status" -eq 0 ] || fail "$1 exited with status $ex_status"
}

# need TOOL DEBIAN-PACKAGE
need() {
    command -v "$1" >/dev/null 2>&1 ||
        fail "$1 is not installed: install the Debian package $2 (.ci/packages lists it)"
}

# The version list.h declares, read independently of the build files.
list_h_version() {
    sed -n 's/^#define TIMER_VERSION "\(.*\)".*/\1/p' "$ROOT/list.h"
}

# snapshot DIR: the checkout's files that git tracks or would track, copied
# to DIR (outside a git checkout: everything but .git and build/ directories).
snapshot() {
    mkdir -p "$1" || fail "mkdir $1"
    echo "+ snapshot of $ROOT into $1"
    if command -v git >/dev/null 2>&1 && git -C "$ROOT" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        (cd "$ROOT" && git ls-files --cached --others --exclude-standard |
            while IFS= read -r f; do [ -f "$f" ] && printf '%s\n' "$f"; done |
            tar -cf - -T -) | (cd "$1" && tar -xf -) || fail "copying the checkout"
    else
        (cd "$ROOT" && tar -cf - --exclude=.git --exclude=build .) | (cd "$1" && tar -xf -) ||
            fail "copying the checkout"
    fi
}

# from_dir DIR PATH...: every PATH (a header the compiler read, relative to
# the build directory BUILD when not absolute) lies in DIR. There must be one:
# proof that the consumer used the package, not some other copy on the system.
from_dir() {
    fd_dir=$1
    shift
    [ $# -gt 0 ] || fail "the compiler read no timer_wheel.h or timer_containers.h at all?"
    for fd_path in "$@"; do
        case "$fd_path" in /*) ;; *) fd_path=$BUILD/$fd_path ;; esac
        fd_path=$(realpath -m "$fd_path")
        case "$fd_path" in
        "$fd_dir"/*) ;;
        *) fail "the consumer read $fd_path, not the header under $fd_dir" ;;
        esac
    done
    echo "  (every timer_wheel.h, timer_containers.h and timer_containers.hpp the compiler read is under $fd_dir)"
}

# from_ninja DIR: every timer_wheel.h, timer_containers.h and
# timer_containers.hpp that ninja recorded for the builds in BUILD lies in
# DIR (from_dir), and the C++ consumer read the .hpp.
from_ninja() {
    fn_list=$(ninja -C "$BUILD" -t deps | sed -n -e 's/^ *\(.*timer_wheel\.h\)$/\1/p' \
        -e 's/^ *\(.*timer_containers\.hpp*\)$/\1/p' | sort -u)
    case $fn_list in *.hpp*) ;; *) fail "no build read timer_containers.hpp (consumer_cxx?)" ;; esac
    # shellcheck disable=SC2086 # the list is words
    from_dir "$1" $fn_list
}

# cc_consumer OUT DEFINE-VERSION FLAGS...: build consumer.c directly (with
# -DUSE_SINGLE_HEADER among FLAGS, through timer_containers.h alone), or
# consumer.cpp with CXX when OUT ends in _cxx.
cc_consumer() {
    cc_out=$1
    cc_version=$2
    shift 2
    case $cc_out in
    *_cxx) cc_cc=$CXX cc_warn=$CXXWARN cc_src=$CONSUMER/consumer.cpp ;;
    *) cc_cc=$CC cc_warn=$WARN cc_src=$CONSUMER/consumer.c ;;
    esac
    run "$cc_cc" $cc_warn "$@" "-DEXPECTED_VERSION=\"$cc_version\"" "$cc_src" -o "$cc_out"
    BUILD=$W
    # shellcheck disable=SC2046 # the dependency list is words
    from_dir "$PREFIX/include/timer_containers" $("$cc_cc" $cc_warn "$@" -DEXPECTED_VERSION='""' -M \
        "$cc_src" | tr ' \\' '\n\n' | grep -E 'timer_(wheel|containers)\.hp*$')
}

# cc_own PREFIX-CFLAGS...: build app.c and lib.c with the application's
# own include directory before the library's flags (own_before) and after
# them (own_after), and run both.
cc_own() {
    run "$CC" $WARN -I"$CONSUMER/own" "$@" "$CONSUMER/app.c" "$CONSUMER/lib.c" -o "$W/own_before"
    run "$CC" $WARN "$@" -I"$CONSUMER/own" "$CONSUMER/app.c" "$CONSUMER/lib.c" -o "$W/own_after"
    exec_ok "$W/own_before"
    exec_ok "$W/own_after"
}

# man_ok MANDIR: man finds each page there (man 3 timer_wheel, ...) and
# renders it without a warning (v2.2), and every alias page (v2.3).
man_ok() {
    need man man-db
    for mo_page in timer_wheel timer_heap timer_set tlist timer_service; do
        echo "+ man -M $1 3 $mo_page"
        mo_out=$(LC_ALL=C.UTF-8 MANWIDTH=80 MANPAGER=cat man --warnings -M "$1" 3 "$mo_page" 2>"$W/man.err") ||
            fail "man -M $1 3 $mo_page failed: $(cat "$W/man.err")"
        [ ! -s "$W/man.err" ] || fail "man -M $1 3 $mo_page warned: $(cat "$W/man.err")"
        case $mo_out in
        *"$(echo "$mo_page" | tr 'a-z' 'A-Z')(3)"*) ;;
        *) fail "man -M $1 3 $mo_page did not show the page" ;;
        esac
    done
    echo "  (man 3 timer_wheel, timer_heap, timer_set, tlist and timer_service work from $1)"
    # v2.3: every other name a page's NAME lists is a page of its own there
    # (man/aliases, one .so line each); man follows two of them
    for mo_alias in "$ROOT"/man/aliases/*.3; do
        cmp -s "$mo_alias" "$1/man3/${mo_alias##*/}" || fail "$1/man3/${mo_alias##*/} is missing or differs"
    done
    for mo_alias in tlist_drain:TLIST TIMER_WHEEL_DEFINE:TIMER_WHEEL; do
        echo "+ man -M $1 3 ${mo_alias%%:*}"
        mo_out=$(LC_ALL=C.UTF-8 MANWIDTH=80 MANPAGER=cat man --warnings -M "$1" 3 "${mo_alias%%:*}" 2>"$W/man.err") ||
            fail "man -M $1 3 ${mo_alias%%:*} failed: $(cat "$W/man.err")"
        case $mo_out in
        *"${mo_alias#*:}(3)"*) ;;
        *) fail "man -M $1 3 ${mo_alias%%:*} did not show ${mo_alias#*:}(3)" ;;
        esac
    done
    echo "  (and the $(ls "$ROOT"/man/aliases | wc -l) other names the NAME sections list: man 3 tlist_drain, ...)"
}

# tree DIR: every file and directory under DIR with its mode, sorted.
tree() {
    (cd "$1" && find . -printf '%M %p\n' | sort -k 2)
}

# same_tree A B WHAT: names, modes and contents agree.
same_tree() {
    tree "$1" >"$W/tree.a"
    tree "$2" >"$W/tree.b"
    if ! diff -u "$W/tree.a" "$W/tree.b" || ! diff -r "$1" "$2"; then
        fail "$3: $1 and $2 differ"
    fi
    echo "  (same files, modes and contents: $3)"
}

VERSION=$(list_h_version)
[ -n "$VERSION" ] || fail "list.h has no #define TIMER_VERSION \"X.Y.Z\""
MAJOR_MINOR=$(echo "$VERSION" | cut -d. -f1,2)
need make make
need "${CC%% *}" "gcc (or the package of CC=$CC)"
need "${CXX%% *}" "g++ (or the package of CXX=$CXX)"

case "$ROUTE" in
make-install)
    PREFIX=$W/prefix
    run make -C "$ROOT" install PREFIX="$PREFIX"
    for f in include/timer_containers/list.h include/timer_containers/bitmap.h \
        include/timer_containers/timer_set.h include/timer_containers/timer_heap.h \
        include/timer_containers/timer_wheel.h include/timer_containers/timer_containers.h \
        include/timer_containers/timer_set_types.h include/timer_containers/timer_heap_types.h \
        include/timer_containers/timer_wheel_types.h include/timer_containers/timer_containers.hpp \
        include/timer_containers/timer_service.h include/timer_containers/timer_service.hpp \
        share/pkgconfig/timer-containers.pc \
        share/cmake/timer_containers/timer_containersConfig.cmake \
        share/cmake/timer_containers/timer_containersConfigVersion.cmake \
        share/man/man3/timer_wheel.3 share/man/man3/timer_heap.3 share/man/man3/timer_set.3 \
        share/man/man3/tlist.3 share/man/man3/timer_service.3; do
        [ -f "$PREFIX/$f" ] || fail "make install did not install $f"
    done
    man_ok "$PREFIX/share/man"
    cc_consumer "$W/consumer" "$VERSION" -I"$PREFIX/include"
    exec_ok "$W/consumer"
    cc_consumer "$W/consumer_single" "$VERSION" -I"$PREFIX/include" -DUSE_SINGLE_HEADER
    exec_ok "$W/consumer_single"
    cc_consumer "$W/consumer_cxx" "$VERSION" -I"$PREFIX/include"
    exec_ok "$W/consumer_cxx"
    cc_own -I"$PREFIX/include"
    # Staged: files under DESTDIR, nothing of DESTDIR in the files.
    run make -C "$ROOT" install PREFIX=/opt/timer-containers DESTDIR="$W/stage"
    [ -f "$W/stage/opt/timer-containers/include/timer_containers/timer_wheel.h" ] ||
        fail "with DESTDIR, the headers are not under DESTDIR/PREFIX/include/timer_containers"
    grep -qx 'prefix=/opt/timer-containers' "$W/stage/opt/timer-containers/share/pkgconfig/timer-containers.pc" ||
        fail "with DESTDIR, the .pc does not say prefix=/opt/timer-containers"
    ! grep -rqF "$W/stage" "$W/stage" || fail "an installed file names DESTDIR"
    ;;

pkg-config)
    need pkg-config pkg-config
    PREFIX=$W/prefix
    run make -C "$ROOT" install PREFIX="$PREFIX"
    # Only our prefix: a timer-containers.pc elsewhere must not stand in for it.
    PKG_CONFIG_LIBDIR=$PREFIX/share/pkgconfig
    export PKG_CONFIG_LIBDIR
    unset PKG_CONFIG_PATH
    run pkg-config --exists --print-errors timer-containers
    run pkg-config --validate timer-containers
    pc_version=$(pkg-config --modversion timer-containers)
    cflags=$(pkg-config --cflags timer-containers)
    libs=$(pkg-config --libs timer-containers)
    echo "  (pkg-config: version '$pc_version', cflags '$cflags', libs '$libs')"
    [ "$pc_version" = "$VERSION" ] || fail "pkg-config says version $pc_version, list.h $VERSION"
    [ "$(echo $cflags)" = "-I$PREFIX/include" ] || fail "pkg-config --cflags gives '$cflags', not -I$PREFIX/include"
    [ -z "$(echo $libs)" ] || fail "pkg-config --libs gives '$libs' for a header-only library"
    # shellcheck disable=SC2086 # cflags are words
    cc_consumer "$W/consumer" "$pc_version" $cflags
    exec_ok "$W/consumer"
    # shellcheck disable=SC2086 # cflags are words
    cc_consumer "$W/consumer_single" "$pc_version" $cflags -DUSE_SINGLE_HEADER
    exec_ok "$W/consumer_single"
    # shellcheck disable=SC2086 # cflags are words
    cc_consumer "$W/consumer_cxx" "$pc_version" $cflags
    exec_ok "$W/consumer_cxx"
    # shellcheck disable=SC2086 # cflags are words
    cc_own $cflags
    ;;

find_package)
    need cmake cmake
    need ninja ninja-build
    PREFIX=$W/prefix
    run cmake -G Ninja -S "$ROOT" -B "$W/lib" -DCMAKE_INSTALL_PREFIX="$PREFIX"
    run cmake --install "$W/lib"
    man_ok "$PREFIX/share/man"
    for p in "$PREFIX" "$W/moved"; do
        BUILD=$W/build-$(basename "$p")
        run cmake -G Ninja -S "$CONSUMER" -B "$BUILD" -DTC_MODE=find_package \
            -DCMAKE_PREFIX_PATH="$p" -DTC_REQUEST="$MAJOR_MINOR" -DTC_EXPECT_PREFIX="$p" \
            -DCMAKE_C_FLAGS="$WARN" -DCMAKE_CXX_FLAGS="$CXXWARN"
        run cmake --build "$BUILD"
        from_ninja "$p/include/timer_containers"
        exec_ok "$BUILD/consumer"
        exec_ok "$BUILD/consumer_single"
        exec_ok "$BUILD/consumer_cxx"
        exec_ok "$BUILD/own_before"
        exec_ok "$BUILD/own_after"
        [ "$p" = "$PREFIX" ] && run mv "$PREFIX" "$W/moved"
    done
    ;;

add_subdirectory)
    need cmake cmake
    need ninja ninja-build
    snapshot "$W/src"
    BUILD=$W/build
    run cmake -G Ninja -S "$CONSUMER" -B "$BUILD" -DTC_MODE=add_subdirectory \
        -DTC_SOURCE="$W/src" -DTC_EXPECT_VERSION="$VERSION" -DCMAKE_C_FLAGS="$WARN" \
        -DCMAKE_CXX_FLAGS="$CXXWARN"
    run cmake --build "$BUILD"
    from_ninja "$W"
    exec_ok "$BUILD/consumer"
    exec_ok "$BUILD/consumer_single"
    exec_ok "$BUILD/consumer_cxx"
    exec_ok "$BUILD/own_before"
    exec_ok "$BUILD/own_after"
    run cmake --install "$BUILD" --prefix "$W/parent-prefix"
    [ -z "$(find "$W/parent-prefix" -type f 2>/dev/null)" ] ||
        fail "installing the parent project installed timer_containers' files too"
    ;;

fetchcontent)
    need cmake cmake
    need ninja ninja-build
    snapshot "$W/timer_containers"
    run tar -czf "$W/timer_containers.tar.gz" -C "$W" timer_containers
    BUILD=$W/build
    run cmake -G Ninja -S "$CONSUMER" -B "$BUILD" -DTC_MODE=fetchcontent \
        -DTC_URL="file://$W/timer_containers.tar.gz" -DTC_EXPECT_VERSION="$VERSION" \
        -DCMAKE_C_FLAGS="$WARN" -DCMAKE_CXX_FLAGS="$CXXWARN"
    run cmake --build "$BUILD"
    from_ninja "$BUILD/_deps"
    exec_ok "$BUILD/consumer"
    exec_ok "$BUILD/consumer_single"
    exec_ok "$BUILD/consumer_cxx"
    exec_ok "$BUILD/own_before"
    exec_ok "$BUILD/own_after"
    ;;

meson)
    need meson meson
    need ninja ninja-build
    P=$W/project
    mkdir -p "$P/subprojects" || fail "mkdir $P"
    run cp -R "$CONSUMER/meson.build" "$CONSUMER/consumer.c" "$CONSUMER/consumer.cpp" "$CONSUMER/app.c" \
        "$CONSUMER/lib.c" "$CONSUMER/lib_api.h" "$CONSUMER/own" "$P/"
    snapshot "$P/subprojects/timer_containers"
    BUILD=$W/build
    # No timer-containers from the system: the subproject must provide it.
    run meson setup "$BUILD" "$P" --force-fallback-for=timer-containers
    run ninja -C "$BUILD"
    from_ninja "$W"
    exec_ok "$BUILD/consumer"
    exec_ok "$BUILD/consumer_single"
    exec_ok "$BUILD/consumer_cxx"
    exec_ok "$BUILD/own_before"
    exec_ok "$BUILD/own_after"
    # meson install of the library itself = make install.
    run meson setup "$W/lib" "$P/subprojects/timer_containers" --prefix=/opt/timer-containers
    run meson install -C "$W/lib" --destdir "$W/meson-stage"
    man_ok "$W/meson-stage/opt/timer-containers/share/man"
    run make -C "$ROOT" install PREFIX=/opt/timer-containers DESTDIR="$W/make-stage"
    same_tree "$W/make-stage" "$W/meson-stage" "make install and meson install"
    ;;

layout)
    need cmake cmake
    need ninja ninja-build
    run cmake -G Ninja -S "$ROOT" -B "$W/lib" -DCMAKE_INSTALL_PREFIX=/opt/timer-containers
    run env DESTDIR="$W/cmake" cmake --install "$W/lib"
    run make -C "$ROOT" install PREFIX=/opt/timer-containers DESTDIR="$W/make"
    same_tree "$W/make" "$W/cmake" "make install and cmake --install"
    echo "  installed:"
    tree "$W/make" | sed 's/^/    /'
    # The .pc is made at install time, from the prefix then in force.
    run env DESTDIR="$W/cmake-other" cmake --install "$W/lib" --prefix /opt/other
    run make -C "$ROOT" install PREFIX=/opt/other DESTDIR="$W/make-other"
    same_tree "$W/make-other" "$W/cmake-other" "cmake --install --prefix"
    # Another include directory, and the cmake directory outside the prefix.
    run cmake -G Ninja -S "$ROOT" -B "$W/lib-dirs" -DCMAKE_INSTALL_PREFIX=/opt/tc \
        -DCMAKE_INSTALL_INCLUDEDIR=inc/x -DTIMER_CONTAINERS_INSTALL_CMAKEDIR=/etc/tc-cmake
    run env DESTDIR="$W/cmake-dirs" cmake --install "$W/lib-dirs"
    run make -C "$ROOT" install PREFIX=/opt/tc INCLUDEDIR=/opt/tc/inc/x CMAKEDIR=/etc/tc-cmake \
        DESTDIR="$W/make-dirs"
    same_tree "$W/make-dirs" "$W/cmake-dirs" "other directories"
    # make uninstall removes everything install put there, from either tree.
    run make -C "$ROOT" uninstall PREFIX=/opt/timer-containers DESTDIR="$W/make"
    run make -C "$ROOT" uninstall PREFIX=/opt/timer-containers DESTDIR="$W/cmake"
    run make -C "$ROOT" uninstall PREFIX=/opt/tc INCLUDEDIR=/opt/tc/inc/x CMAKEDIR=/etc/tc-cmake \
        DESTDIR="$W/make-dirs"
    for d in make cmake make-dirs; do
        left=$(find "$W/$d" -type f -o -name timer_containers -o -name tc-cmake)
        [ -z "$left" ] || fail "make uninstall left in $W/$d: $left"
    done
    echo "  (make uninstall left no file and no timer_containers directory)"
    ;;

version)
    need cmake cmake
    need meson meson
    echo "  list.h: $VERSION"
    parts=$(sed -n 's/^#define TIMER_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\).*/\2/p' "$ROOT/list.h" |
        paste -sd. -)
    [ "$parts" = "$VERSION" ] || fail "list.h: MAJOR.MINOR.PATCH is $parts, TIMER_VERSION $VERSION"
    run make -C "$ROOT" install PREFIX=/opt/timer-containers DESTDIR="$W/make"
    P=$W/make/opt/timer-containers
    pc=$(sed -n 's/^Version: *//p' "$P/share/pkgconfig/timer-containers.pc")
    echo "  timer-containers.pc: $pc"
    [ "$pc" = "$VERSION" ] || fail "the .pc says $pc, list.h $VERSION"
    # The CMake version files as find_package reads them: the installed one
    # and the one CMakeLists.txt makes from its own reading of list.h.
    run cmake -G Ninja -S "$ROOT" -B "$W/lib"
    for f in "$P/share/cmake/timer_containers/timer_containersConfigVersion.cmake" \
        "$W/lib/pkg/timer_containersConfigVersion.cmake"; do
        cat >"$W/probe.cmake" <<EOF
set(PACKAGE_FIND_VERSION "$VERSION")
string(REGEX MATCH "^[0-9]+" PACKAGE_FIND_VERSION_MAJOR "$VERSION")
include("$f")
if(NOT PACKAGE_VERSION_EXACT OR NOT PACKAGE_VERSION_COMPATIBLE)
  message(FATAL_ERROR "find_package(timer_containers $VERSION EXACT) is refused")
endif()
message("\${PACKAGE_VERSION}")
EOF
        cm=$(cmake -P "$W/probe.cmake" 2>&1) || fail "$f: $cm"
        echo "  $(basename "$(dirname "$f")")/$(basename "$f"): $cm"
        [ "$cm" = "$VERSION" ] || fail "$f says $cm, list.h $VERSION"
    done
    ms=$(cd "$ROOT" && meson introspect --projectinfo meson.build 2>/dev/null |
        sed -n 's/.*"version": *"\([^"]*\)".*/\1/p')
    echo "  meson.build: $ms"
    [ "$ms" = "$VERSION" ] || fail "meson.build says '$ms', list.h $VERSION"
    ;;
esac

echo "PASS $ROUTE ($(elapsed "$START") s)"
rm -rf "$W"
