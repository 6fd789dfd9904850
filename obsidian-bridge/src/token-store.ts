// Where the daemon's token lives: Obsidian's secret storage where the app has it (1.11.4 and
// later: kept by the app, per device, outside the vault), else the plugin's data.json, which is
// in the vault and travels with it (the settings tab says so).

export const SECRET_ID = "commonplace-daemon-token";

export interface SecretStorageLike {
	getSecret(id: string): string | null;
	setSecret(id: string, secret: string): void;
}

export class TokenStore {
	constructor(
		private readonly secrets: SecretStorageLike | null,
		private readonly data: { token: string },
		private readonly save: () => Promise<void>,
	) {}

	get secure(): boolean {
		return this.secrets !== null;
	}

	get(): string {
		return this.secrets ? (this.secrets.getSecret(SECRET_ID) ?? "") : this.data.token;
	}

	async set(token: string): Promise<void> {
		const value = token.trim();
		if (this.secrets) {
			this.secrets.setSecret(SECRET_ID, value);
			if (this.data.token) {
				this.data.token = "";
				await this.save();
			}
			return;
		}
		this.data.token = value;
		await this.save();
	}

	/** A token kept in data.json before the app had secret storage moves there, once. */
	async migrate(): Promise<void> {
		if (this.secrets && this.data.token) {
			if (!this.secrets.getSecret(SECRET_ID)) this.secrets.setSecret(SECRET_ID, this.data.token);
			this.data.token = "";
			await this.save();
		}
	}
}
