# nhsimd in a container: built from Debian bookworm packages (scripts/install-deps), run as an
# unprivileged user, listening on all interfaces inside the container (gRPC 50051, metrics 9464).
#   docker build -t nhsimd .
#   docker run --rm -p 127.0.0.1:50051:50051 -p 127.0.0.1:9464:9464 nhsimd
FROM debian:bookworm AS build
WORKDIR /src
COPY scripts/install-deps scripts/install-deps
RUN scripts/install-deps && rm -rf /var/lib/apt/lists/*
COPY . .
RUN cmake -S . -B /build -G Ninja -DCMAKE_BUILD_TYPE=Release -DNHSIM_BUILD_SERVICE=ON \
      -DNHSIM_BUILD_BENCH=OFF \
 && cmake --build /build -j"$(nproc)" --target nhsimd nhsim

FROM debian:bookworm
RUN apt-get update -q \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
      libgrpc++1.51 libprotobuf32 libprometheus-cpp-pull1.0 libtbb12 \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /build/server/nhsimd /build/client/nhsim /usr/local/bin/
USER nobody
EXPOSE 50051 9464
ENTRYPOINT ["nhsimd", "--listen", "0.0.0.0:50051", "--metrics", "0.0.0.0:9464"]
