/** The directory holding the built UI (index.html and assets/). */
export declare const webRoot: string;
/** Whether the UI has been built (`npm run build -w @sluice/web`). */
export declare function webBuilt(): boolean;
