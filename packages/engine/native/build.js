// placeholder; replaced by the native build script
