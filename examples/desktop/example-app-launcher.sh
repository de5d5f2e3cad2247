#!/bin/sh
# A shell-script launcher gated by VersionGate: `exec versiongate exec` so
# that, once the check allows it, the app replaces this shell and keeps its
# pid (signals, exit status and `wait` behave as if it were started
# directly). From a terminal the prompt is asked there; from a desktop menu
# it is a zenity or kdialog dialog.
#
# The installed version comes from the app's AppStream metainfo
# (org.example.App.metainfo.xml): --version-from appstream reads its
# greatest stable release, so no line here changes with the version.
#
# Exit status: the app's own; 20 when this version is below the minimum
# (the app did not start); 127 if the app is not installed.
set -eu
exec versiongate exec \
    --source /usr/share/example-app/gate.json \
    --version-from appstream \
    --set store=flathub --set app_id=org.example.App \
    --set remind_after_s=604800 \
    -- /usr/lib/example-app/example-app "$@"
