#!/usr/bin/env bash
# Writes a throwaway CA (ca.pem) and a server certificate for 127.0.0.1 signed by it (server.pem,
# server-key.pem) into DIR, so HTTPS tests can pass ca_file = DIR/ca.pem.
# Usage: make-cert.sh DIR
set -euo pipefail
DIR="${1:?usage: make-cert.sh DIR}"
mkdir -p "$DIR"
cd "$DIR"
command -v openssl >/dev/null || { echo "openssl is missing" >&2; exit 1; }
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=attribution test CA" \
  -keyout ca-key.pem -out ca.pem \
  -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
openssl req -newkey rsa:2048 -nodes -subj "/CN=127.0.0.1" -keyout server-key.pem -out server.csr 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n' > server.ext
openssl x509 -req -in server.csr -CA ca.pem -CAkey ca-key.pem -CAcreateserial -days 2 \
  -extfile server.ext -out server.pem 2>/dev/null
rm -f server.csr server.ext ca.srl
