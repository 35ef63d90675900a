# The Flowd demo image: flowd (the stock daemon) with the demo's flow file, login-service, movie-service,
# movie-presenter and flowctl over Debian bookworm.
#
# No image registry is needed: the base image `flowd-base:bookworm` is Debian bookworm made with debootstrap
# (minbase plus libzmq5) and imported with `docker import`, and the binaries are built on the host
# (`swift build -c release --static-swift-stdlib`, so the Swift runtime is inside them) and staged in
# .build-compose/image/bin. scripts/compose-check does all three; .dockerignore keeps the build context to the
# staged binaries, config/flowd.json and the flow file.
ARG BASE_IMAGE=flowd-base:bookworm
FROM ${BASE_IMAGE}
COPY .build-compose/image/bin/ /usr/local/bin/
COPY config/flowd.json /etc/flowd/flowd.json
# flowd.json's `app`.
COPY Examples/flowfiles/movies.flows.yaml /usr/local/share/flowd/movies.flows.yaml
# The journal's directory (flowd.json); compose mounts a named volume over it, which starts with this owner and mode.
RUN mkdir -p /var/lib/flowd && chown 65534:65534 /var/lib/flowd && chmod 0700 /var/lib/flowd
# nobody: the daemon needs no privilege (in compose it listens on tcp:// ports above 1024).
USER 65534:65534
EXPOSE 5560 5561
# On tcp:// without CURVE keys flowd refuses to start, so this CMD alone exits with that error: docker-compose.yml
# adds --allow-plaintext-tcp for its private network; elsewhere give keys (docs/SECURITY.md) or that flag.
CMD ["flowd", "--config", "/etc/flowd/flowd.json", \
     "--control", "tcp://0.0.0.0:5560", "--events", "tcp://0.0.0.0:5561"]
