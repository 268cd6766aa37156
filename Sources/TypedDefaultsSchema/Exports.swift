// One import for a file that exports a schema: `import TypedDefaultsSchema` brings the models and
// `SettingsSchema` (TypedDefaults), which the exports extend. Docs/Design.md, "Modules".
@_exported import TypedDefaults
