/** The reference page's renderer: Swagger UI's standalone bundle and style sheet, served by the API itself. */
export const DOCS_ASSETS = ['swagger-ui-dist/swagger-ui-bundle.js', 'swagger-ui-dist/swagger-ui.css'] as const;
