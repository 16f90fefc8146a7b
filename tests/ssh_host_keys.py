"""SSH host keys for tests: made with `ssh-keygen` for these tests only (no machine has them), with the
fingerprints and hashed known_hosts lines `ssh-keygen -lf` and `ssh-keygen -H` printed for them, so the
tests compare gpukit's parsing with OpenSSH's own and not with itself."""

# ssh-keygen -t ed25519; the stack file stacks/Pulumi.k3s-ssh.yaml gives these to its three hosts.
ED25519_10 = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBDXr6ptbviy11flYkGgD0fqAoQugEbB2l+XdLh2T2wP"
ED25519_11 = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKg6npGJMVR5IYXoqiBZMoECOXCEJ52qakZOW0/LWEIi"
ED25519_12 = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAICpD420cktl0riJX5+ZjhZtsYVwJNrXN4bn2uy00n0W+"
ED25519_11_FINGERPRINT = "SHA256:WFiBJDzgcbg03si9DtmFwQRvHzY2qPBKOg5ec0u1bU0"
# The key for any other host (hosts a test adds, bastions), as its .pub file has it: with a comment.
ED25519_OTHER_PUB = (
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAII+u+o1/rrVnvIqPQ+yuEhGL61tUJhly8R2ADRkhZAjQ root@gpu-extra"
)
ED25519_OTHER = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAII+u+o1/rrVnvIqPQ+yuEhGL61tUJhly8R2ADRkhZAjQ"
ED25519_OTHER_FINGERPRINT = "SHA256:dNk6tytob26RjSHn64FnzhQ0fdB5zs7vdppKu3bLt7Y"
ECDSA_256 = (
    "ecdsa-sha2-nistp256 "
    "AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBBORLAjIH63IfMLb/otwxBaLZifJw68sfL6TD2z39IdIa"
    "phXHCSAVmBDllG+cLO6hydEq56HViyFbZzG5LqLl3Jk="
)
ECDSA_256_FINGERPRINT = "SHA256:ou8vGMfCIqNeXm3CSXTYuuLS61edMN1q3RZi5raef5Y"
ECDSA_384 = (
    "ecdsa-sha2-nistp384 "
    "AAAAE2VjZHNhLXNoYTItbmlzdHAzODQAAAAIbmlzdHAzODQAAABhBM378eZaAG+ZoQfVaznFvx3dQWAzYcRCFlrYEwhXlvY/"
    "lgAwo6HkqqUkhjBrGJ6goFnSfwWHyw/UajQrVzfEKEKlRjDaxaxpVWQMbjD04C0XUckikdCcVXS03opaSLDuWA=="
)
ECDSA_384_FINGERPRINT = "SHA256:8srOVbDiij/RxxVqNP+2QHbl5kuLfLhZMl58JH3+Q1A"
RSA_3072 = (
    "ssh-rsa "
    "AAAAB3NzaC1yc2EAAAADAQABAAABgQCJopKEuSvZgfMLn9JOnI9ZmIp8JJOXtx3dyfOMZIe2G7CxJ2sHkR/yTGtCY1lVwytp"
    "N7T9qLeezMMNBeWS9hLe19c8cL64EwnwWpMarP2QmkOEGPZxsAEK8DKBL3cBDf6mAK5OpT3q1n50NjDFmhLzyIIHD4qW74Pb"
    "9tIGTCHP73JKjO/8uF+ZFQMbr/fJ5jaoMXp8IcOgXKka5f7zZFSTmU3yUuEqauOX377y3ArRoeGhzt1Uc6H6NcBz+QjAYb1Z"
    "yC9SxlmPUpUC3lGyX5nsoQrSwO1FUlFEyzZsk09EmotavDammA+gswV5dOiq0RWBK7o6ymPOJ+bLykAq2/MtQAFjkDgt0Orb"
    "ZOQ23ydgkNeRQOguoFV63Rzsueml87qAad1Fjq6h8FThHwacABkDpT6nVgdA0kB3u8K9BWgmZTKjYgfEt8RDBzKb82XXA+E6"
    "EXLeoTQfuAe9Y5ig8CK6ZsaSQYJ8Aj2CUlrFB9eBNrm60hTTU1i6to3VtKlbzLc="
)

# ssh-keygen -H of `192.0.2.11 <ED25519_11>` and of `[192.0.2.11]:2222 <ED25519_11>`.
HASHED_11 = "|1|pIpx0GHwZJYtO81isM5QKn4YO/k=|YycptqTbOO9I3VCJNnFSYmNkdJw= " + ED25519_11
HASHED_11_PORT_2222 = "|1|fwB171sggyeqRqWKvOwWf/BaxnQ=|fu54WL4ysRZlgU1Z2vCZiXq3qYc= " + ED25519_11
# ssh-keygen -H of `198.51.100.5 <ED25519_OTHER>`: a line for another host than 192.0.2.11.
HASHED_198_51_100_5 = "|1|SpOcOLSqa+7zCthI6dX2T5zTQGE=|TbTlVA44Rhs67ygQwXrFPWgrmAQ= " + ED25519_OTHER
