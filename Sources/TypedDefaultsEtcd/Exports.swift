// One import for a file that configures a fleet: `import TypedDefaultsEtcd` brings the models
// (TypedDefaults) and `LayeredPlistStore`, whose layer an `EtcdSource` fills
// (TypedDefaultsLayers). Docs/Design.md, "Modules".
@_exported import TypedDefaults
@_exported import TypedDefaultsLayers
