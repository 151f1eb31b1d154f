#!/bin/sh
# api: apply pending migrations, then serve. worker: run the job processors.
set -e
case "$1" in
  api)
    node dist/apps/api/main.js migrate
    exec node dist/apps/api/main.js
    ;;
  worker)
    exec node dist/apps/worker/main.js
    ;;
  migrate)
    exec node dist/apps/api/main.js migrate
    ;;
  *)
    exec "$@"
    ;;
esac
