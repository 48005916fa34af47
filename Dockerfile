# syntax=docker/dockerfile:1
# dataprotect-exporter: multi-stage build, production dependencies only, non-root.
# Node 22 (LTS; Node 20 reached its end of life on 2026-04-30). The simulator and the demo live in
# simulator/, outside src/: neither is copied nor built here (they need dev dependencies).
#   docker build -t dataprotect-exporter .
#   docker run -p 8497:8497 -v /path/to/config.yaml:/etc/dataprotect-exporter/config.yaml:ro dataprotect-exporter

FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

FROM node:22-bookworm-slim AS production-deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

FROM node:22-bookworm-slim
ENV NODE_ENV=production
# No NODE_OPTIONS: the exporter sets the collection thread's heap itself (its ceiling is the
# configuration's collection.heapLimit, its young generation fixed in src/collection/host.ts), and
# V8 sizes the serving thread's heap from the container's memory. --max-old-space-size or
# --max-semi-space-size would override them (docs/sizing.md).
WORKDIR /app
COPY --from=production-deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY config/example.yaml /etc/dataprotect-exporter/example.yaml
# The configuration is mounted at /etc/dataprotect-exporter/config.yaml (see README "Docker"); no
# VOLUME here: it would leave an anonymous volume behind every container run with a single-file mount.
USER node
EXPOSE 8497
# DATAPROTECT_HEALTH_URL follows web.port / web.tls when they differ from the defaults; the check
# only talks to this container, so its own (possibly self-signed) certificate is not verified.
ENV DATAPROTECT_HEALTH_URL=http://127.0.0.1:8497/healthz
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "const u=process.env.DATAPROTECT_HEALTH_URL;if(u.startsWith('https:'))process.env.NODE_TLS_REJECT_UNAUTHORIZED='0';fetch(u).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# --single-threaded-gc: each thread's heap is collected on that thread. V8's helper threads are
# shared by the process, and the collection heap's parallel and concurrent collections would hold
# them and the cores while the serving thread's own collections wait (docs/performance.md). NODE_OPTIONS
# does not accept the flag, so it stands here.
ENTRYPOINT ["node", "--single-threaded-gc", "dist/src/main.js"]
CMD ["--config", "/etc/dataprotect-exporter/config.yaml"]
