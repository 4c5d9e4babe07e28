# syntax=docker/dockerfile:1
# The image of the skillgate GitHub Action (action.yml): a static skillgate binary on distroless.
# Why this base and what it lacks: docs/action.md, "The container image".

FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
ARG COMMIT=unknown
RUN CGO_ENABLED=0 GOFLAGS=-buildvcs=false go build -trimpath \
      -ldflags="-s -w -X main.version=${VERSION} -X main.commit=${COMMIT}" \
      -o /out/skillgate ./cmd/skillgate

# distroless/static: CA certificates (api.github.com, models.github.ai), tzdata, /etc/passwd and
# nothing else. The :debug tag adds busybox for one reason: suite hooks run through `sh -c`.
# No git: changed files, merge base and the rerun tree come from the REST API.
# No USER and no WORKDIR: the action runs as root in the workspace the runner mounts root-owned.
FROM gcr.io/distroless/static-debian12:debug
ENV PATH=/usr/local/bin:/usr/bin:/bin:/busybox
COPY --from=build /out/skillgate /usr/local/bin/skillgate
ENTRYPOINT ["/usr/local/bin/skillgate"]
CMD ["action"]
