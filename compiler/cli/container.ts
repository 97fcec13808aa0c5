/**
 * `pipec build --container`: a Dockerfile (and .dockerignore) beside the built service (issue 22,
 * item 2). Two stages: the first installs the packages of package-lock.json (`npm ci --omit=dev`,
 * with the compilers a native module may need when no prebuilt binary fits), the second holds only
 * the service, those packages, and the V8 code cache made inside the image for its own Node.js.
 * It runs as the image's unprivileged `node` user, keeps the embedded backends' data in a volume,
 * and reports /ready as its health.
 */

/** The Node.js image the service runs on: the version that built it (its code cache is made for it again anyway). */
export function nodeImage(version: string = process.versions.node): string {
  return `node:${version}-bookworm-slim`;
}

/** Commands of the Dockerfile that the install test runs as they are (test/e2e/ship.test.ts). */
export const INSTALL_COMMAND = 'npm ci --omit=dev --no-audit --no-fund';
export const CODE_CACHE_COMMAND = 'node runtime/code-cache.js';
export const HEALTH_COMMAND =
  "node -e \"fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/ready').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))\"";

export function dockerfile(serviceName: string, bundled: boolean, nodeVersion: string = process.versions.node): string {
  return `# syntax=docker/dockerfile:1
# The service \`${serviceName}\`, built by \`pipec build --container\`.
#   docker build -t ${serviceName} .
#   docker run -p 8080:8080 -v ${serviceName}-data:/data ${serviceName}
# Environment: PORT, HOST, PIPEC_STORE / PIPEC_BROKER for shared backends (docs/deploy.md);
# any secret NAME may come from a mounted file named by NAME_FILE.
ARG NODE_IMAGE=${nodeImage(nodeVersion)}

# 1. The packages of package-lock.json, exactly; compilers only for a native module without a prebuilt binary.
FROM \${NODE_IMAGE} AS deps
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN ${INSTALL_COMMAND}

# 2. The service, its packages, and (with a bundle) the V8 code cache made here for this image's Node.js.
FROM \${NODE_IMAGE}
ENV NODE_ENV=production PORT=8080 PIPEC_DATA_DIR=/data
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY . .
${bundled ? `RUN ${CODE_CACHE_COMMAND}\n` : ''}RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 CMD ${HEALTH_COMMAND}
STOPSIGNAL SIGTERM
CMD ["node", "server.js"]
`;
}

/** What never goes into the image: installed packages (installed there), local data, the build machine's code cache. */
export const DOCKERIGNORE = `node_modules
.pipec-data
.data
bundle/service.cjs.cache
Dockerfile
.dockerignore
`;
