import * as vscode from 'vscode';

/**
 * Generated Markdown (the briefing, the tool report) shown as a read-only document: nothing to
 * save, no "save changes?" prompt on close, unlike an untitled document. One scheme per kind, one
 * document per scheme, updated in place when shown again.
 */
export class ReadOnlyDocument implements vscode.TextDocumentContentProvider, vscode.Disposable {
  readonly uri: vscode.Uri;
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly registration: vscode.Disposable;
  private text = '';

  constructor(scheme: string, fileName: string) {
    this.uri = vscode.Uri.from({ scheme, path: `/${fileName}` });
    this.registration = vscode.workspace.registerTextDocumentContentProvider(scheme, this);
  }

  /** Sets the text and shows it (a preview tab); returns the document. */
  async show(text: string): Promise<vscode.TextDocument> {
    this.text = text;
    this.changed.fire(this.uri);
    const doc = await vscode.workspace.openTextDocument(this.uri);
    await vscode.window.showTextDocument(doc, { preview: true });
    return doc;
  }

  /**
   * Sets the text and shows it rendered (VS Code's Markdown preview of this read-only document, which
   * follows later updates); the Markdown source stays one command away (Open Preview's "Open Source").
   */
  async preview(text: string): Promise<void> {
    this.text = text;
    this.changed.fire(this.uri);
    await vscode.commands.executeCommand('markdown.showPreview', this.uri);
  }

  provideTextDocumentContent(): string {
    return this.text;
  }

  dispose(): void {
    this.registration.dispose();
    this.changed.dispose();
  }
}
