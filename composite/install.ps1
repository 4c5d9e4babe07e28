# Installs skillgate for the composite action on Windows runners: the release's zip for this
# runner and checksums.txt are downloaded, the zip is verified against its SHA-256 before it is
# unpacked, and the binary's folder goes on GITHUB_PATH. SKILLGATE_VERSION "dev" builds from the
# action's own checkout instead (needs Go on the runner). Same environment as install.sh.
$ErrorActionPreference = 'Stop'

$version = if ($env:SKILLGATE_VERSION) { $env:SKILLGATE_VERSION } else { 'dev' }
$repo = if ($env:SKILLGATE_REPOSITORY) { $env:SKILLGATE_REPOSITORY } else { 'skillgate/skillgate' }
$server = if ($env:GITHUB_SERVER_URL) { $env:GITHUB_SERVER_URL } else { 'https://github.com' }
$dest = Join-Path $env:RUNNER_TEMP "skillgate-$version"
New-Item -ItemType Directory -Force -Path $dest | Out-Null

if ($version -eq 'dev') {
  if (-not (Get-Command go -ErrorAction SilentlyContinue)) {
    Write-Output "::error title=skillgate::version dev builds skillgate from the action's checkout and needs Go: add actions/setup-go before this step, or set version to a release (e.g. v1.2.3)"
    exit 2
  }
  $src = Resolve-Path (Join-Path $env:GITHUB_ACTION_PATH '..')
  Push-Location $src
  $env:CGO_ENABLED = '0'
  go build -trimpath -o (Join-Path $dest 'skillgate.exe') ./cmd/skillgate
  if ($LASTEXITCODE -ne 0) { exit $LASTEXITCODE }
  Pop-Location
  Add-Content -Path $env:GITHUB_PATH -Value $dest
  & (Join-Path $dest 'skillgate.exe') version
  exit 0
}

if ($version -notmatch '^v\d+\.\d+\.\d+') {
  Write-Output "::error title=skillgate::version $version is not a release (vX.Y.Z) or dev"
  exit 2
}
$arch = switch ($env:RUNNER_ARCH) { 'X64' { 'amd64' } 'ARM64' { 'arm64' } default { '' } }
if (-not $arch) {
  Write-Output "::error title=skillgate::no skillgate release for the architecture $($env:RUNNER_ARCH)"
  exit 2
}
$name = "skillgate_${version}_windows_${arch}"
$archive = "$name.zip"
$base = "$server/$repo/releases/download/$version"
Invoke-WebRequest -Uri "$base/$archive" -OutFile (Join-Path $dest $archive) -MaximumRetryCount 3
Invoke-WebRequest -Uri "$base/checksums.txt" -OutFile (Join-Path $dest 'checksums.txt') -MaximumRetryCount 3

$want = $null
foreach ($line in Get-Content (Join-Path $dest 'checksums.txt')) {
  $parts = $line -split '\s+'
  if ($parts.Count -ge 2 -and ($parts[1] -eq $archive -or $parts[1] -eq "*$archive")) { $want = $parts[0].ToLower() }
}
if (-not $want) {
  Write-Output "::error title=skillgate::checksums.txt of $version lists no $archive"
  exit 1
}
$got = (Get-FileHash -Algorithm SHA256 -Path (Join-Path $dest $archive)).Hash.ToLower()
if ($got -ne $want) {
  Write-Output "::error title=skillgate::$archive does not match checksums.txt (sha256 $got, want $want): not installed"
  exit 1
}
Expand-Archive -Path (Join-Path $dest $archive) -DestinationPath $dest -Force
$bin = Join-Path $dest $name
Add-Content -Path $env:GITHUB_PATH -Value $bin
& (Join-Path $bin 'skillgate.exe') version
