// One import for a test file: `import TypedDefaultsTesting` brings `@Setting`, the models and the
// backends it checks (TypedDefaults), and `LayeredPlistStore` and `LayerSource`, which its
// layer-source suite is written in (TypedDefaultsLayers). Docs/Design.md, "Modules".
@_exported import TypedDefaults
@_exported import TypedDefaultsLayers
