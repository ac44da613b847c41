# nhsimd in a container: built from Debian bookworm packages (scripts/install-deps), run as an
# unprivileged user (uid 65534, "nobody"), gRPC on 50051 and Prometheus metrics on 9464.
#   docker build -t nhsimd .            (or: podman build -t nhsimd .)
#   build/client/nhsim token $USER --append tokens > ~/.nhsim-token
#   docker run --rm -p 127.0.0.1:50051:50051 -p 127.0.0.1:9464:9464 -v nhsim-store:/var/lib/nhsim \
#     -v "$PWD/tokens:/run/secrets/nhsim-tokens:ro" nhsimd
#   build/client/nhsim --server 127.0.0.1:50051 --token-file ~/.nhsim-token systems
# The image also holds the nhsim CLI (/usr/local/bin/nhsim).
# scripts/test-container builds this image, runs it, compares its demo result with a native
# run and runs deploy/docker-compose.yml; run it after changing this file or deploy/.
# Where no registry is reachable, scripts/test-container makes the debian:bookworm base image
# with debootstrap (docs/operations.md, "Containers").

# Build stage: the toolchain and -dev packages, then only the two binaries (no tests, no bench).
FROM debian:bookworm AS build
WORKDIR /src
# install-deps alone first, so that this layer stays cached while the sources change.
COPY scripts/install-deps scripts/install-deps
RUN scripts/install-deps && apt-get clean && rm -rf /var/lib/apt/lists/*
# The context is a whitelist (.dockerignore): CMakeLists.txt and the source directories.
COPY . .
RUN cmake -S . -B /build -G Ninja -DCMAKE_BUILD_TYPE=Release -DNHSIM_BUILD_SERVICE=ON \
      -DNHSIM_BUILD_BENCH=OFF \
 && cmake --build /build -j"$(nproc)" --target nhsimd nhsim
# The Debian packages that own the shared libraries the two binaries load (ldd), for the
# runtime stage: libgrpc++1.51, libprotobuf32, libprometheus-cpp-*1.0, libtbb12, ... . Matched
# in this architecture's library directory (/lib or /usr/lib, whichever ldd names), so that
# lib32 copies of the same names (clang's dependencies) are not taken.
RUN for lib in $(ldd /build/server/nhsimd /build/client/nhsim | awk '$3 ~ /^\// { print $3 }' | sort -u); do \
      dir=${lib%/*}; dpkg -S "*/${dir##*/}/${lib##*/}"; \
    done | sed 's/: .*//; s/, /\n/g' | sed 's/:.*//' | sort -u >/build/runtime-packages \
 && echo "runtime packages:" $(cat /build/runtime-packages)

# Runtime stage: Debian bookworm with those packages (and their dependencies) only.
FROM debian:bookworm
COPY --from=build /build/runtime-packages /tmp/runtime-packages
RUN apt-get update -q \
 && xargs -a /tmp/runtime-packages env DEBIAN_FRONTEND=noninteractive \
      apt-get install -y -q --no-install-recommends \
 && apt-get clean && rm -rf /var/lib/apt/lists/* /tmp/runtime-packages
COPY --from=build /build/server/nhsimd /build/client/nhsim /usr/local/bin/
# Fails the build if a library is missing. /var/lib/nhsim: the job store (nhsimd's --data-dir
# defaults to $XDG_STATE_HOME/nhsim), writable by the user below; mount a volume there
# (deploy/docker-compose.yml, deploy/k8s/store-pvc.yaml) for jobs to outlive the container.
RUN ! ldd /usr/local/bin/nhsimd /usr/local/bin/nhsim | grep 'not found' \
 && nhsimd --help >/dev/null && nhsim --help >/dev/null \
 && install -d -o 65534 -g 65534 -m 0750 /var/lib/nhsim
ENV XDG_STATE_HOME=/var/lib
# Numeric, so that Kubernetes' runAsNonRoot can check it.
USER 65534:65534
EXPOSE 50051 50052 9464
# nhsimd handles SIGTERM (drain) and SIGINT itself as PID 1, and waits for the only children it
# starts (the Slurm executor's sbatch/squeue/scancel; this image has no Slurm client, so it runs
# the local executor), so no init is needed. It listens on all interfaces inside the container
# so that published ports reach it, and therefore (as nhsimd does on any non-loopback address)
# requires bearer tokens: mount a tokens file (`nhsim token NAME --append FILE`) at
# /run/secrets/nhsim-tokens, as a secret or read-only volume; without it nhsimd exits with an
# error. Add --tls-cert/--tls-key (also mounted) for TLS. 50052 answers gRPC health checks only,
# in plaintext and without a token, for probes that cannot speak TLS.
ENTRYPOINT ["nhsimd", "--listen", "0.0.0.0:50051", "--health-listen", "0.0.0.0:50052", \
            "--metrics", "0.0.0.0:9464", "--tokens-file", "/run/secrets/nhsim-tokens"]
