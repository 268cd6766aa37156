// One import for a file that uses the store: `import TypedDefaultsLayers` brings `@Setting`, the
// models and `SettingsBackend` (TypedDefaults), which the store's API is written in.
// Docs/Design.md, "Modules".
@_exported import TypedDefaults
